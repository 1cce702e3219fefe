module gate.test/layoutsens

go 1.19
