module gate.test/inlinetargets

go 1.19
