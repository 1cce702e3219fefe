module gate.test/hotloop

go 1.19
