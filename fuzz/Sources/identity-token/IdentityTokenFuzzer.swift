import FuzzEntries

// libFuzzer's entry point for `fuzz-identity-token`; the logic is FuzzTarget.identityToken (FuzzEntries).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.identityToken.fuzz(data, size)
}
