module gate.test/waits

go 1.19
