module gate.test/truetime

go 1.19
