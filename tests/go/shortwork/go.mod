module gate.test/shortwork

go 1.19
