module gate.test/profiletarget

go 1.19
