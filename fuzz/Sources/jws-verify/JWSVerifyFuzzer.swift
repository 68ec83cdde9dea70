import FuzzEntries

// libFuzzer's entry point for `fuzz-jws-verify`; the logic is FuzzTarget.jwsVerify (FuzzEntries).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.jwsVerify.fuzz(data, size)
}
