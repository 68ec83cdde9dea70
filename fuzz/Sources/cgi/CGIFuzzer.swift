import FuzzEntries

// libFuzzer's entry point for `fuzz-cgi`; the logic is FuzzTarget.cgi (FuzzEntries).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.cgi.fuzz(data, size)
}
