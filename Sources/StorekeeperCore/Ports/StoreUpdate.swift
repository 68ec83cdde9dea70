/// What one round of `KeyValueStore.update` decided, having seen the current record.
public enum StoreUpdate<Record, Result> {
    /// Write `record` if nobody wrote the key since it was read (otherwise read again and
    /// decide again), then answer `result`.
    case write(Record, Result)
    /// Write nothing and answer `result`.
    case keep(Result)
}
