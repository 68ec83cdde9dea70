import FuzzEntries

// libFuzzer's entry point for `fuzz-verify-signed-data`; the logic is FuzzTarget.verifySignedData (FuzzEntries).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.verifySignedData.fuzz(data, size)
}
