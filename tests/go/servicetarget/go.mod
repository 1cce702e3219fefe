module gate.test/servicetarget

go 1.19
