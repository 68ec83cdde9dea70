import FuzzEntries

// libFuzzer's entry point for `fuzz-front-doors`; the logic is FuzzTarget.frontDoors (FuzzEntries).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.frontDoors.fuzz(data, size)
}
