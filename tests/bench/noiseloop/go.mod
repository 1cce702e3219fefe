module example.com/noiseloop

go 1.19
