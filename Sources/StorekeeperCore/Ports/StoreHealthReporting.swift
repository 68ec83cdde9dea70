/// A store that can report its `StoreHealth` with reads alone (the Redis adapter uses only
/// read commands; SQLite reads through a read-only connection).
public protocol StoreHealthReporting: AnyObject {
    func health() throws(StoreError) -> StoreHealth
}
