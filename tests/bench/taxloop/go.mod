module taxloop

go 1.19
