module gate.test/probetarget

go 1.19
