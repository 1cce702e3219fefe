module example.com/analysis/v2

go 1.19
