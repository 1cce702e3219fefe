module gate.test/args

go 1.19
