module gate.tool/calibtarget

go 1.19
