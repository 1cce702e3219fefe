module example.com/cgospin

go 1.19
