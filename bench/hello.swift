// The Swift floor for `make bench`: process start-up of a static-stdlib Swift binary.
// Build: swiftc -O -static-stdlib bench/hello.swift -o <out>/hello-swift
print("Hello, world!")
