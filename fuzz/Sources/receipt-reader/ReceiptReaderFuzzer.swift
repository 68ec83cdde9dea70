import FuzzEntries

// libFuzzer's entry point for `fuzz-receipt-reader`; the logic is FuzzTarget.receiptReader (FuzzEntries).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzTarget.receiptReader.fuzz(data, size)
}
