import FuzzEntries

// libFuzzer's entry point for `fuzz-ocsp-response`; the logic is FuzzTarget.ocspResponse (FuzzEntries).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.ocspResponse.fuzz(data, size)
}
