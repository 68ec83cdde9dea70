import FuzzEntries

// libFuzzer's entry point for `fuzz-catalog`; the logic is FuzzTarget.catalog (FuzzEntries).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.catalog.fuzz(data, size)
}
