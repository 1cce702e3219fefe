module gate.test/asmcpu

go 1.19
