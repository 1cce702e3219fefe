module example.com/benchpkg

go 1.19
