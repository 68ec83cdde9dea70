import StorekeeperCore
import Testing

extension KeyValueStoreConformanceTests {
    @Test(arguments: StoreBackend.all)
    func setsAddRemoveAndListSorted(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        #expect(try store.setMembers("user:1:transactions") == [])
        #expect(try store.addToSet("user:1:transactions", "300"))
        #expect(try store.addToSet("user:1:transactions", "100"))
        #expect(try store.addToSet("user:1:transactions", "200"))
        #expect(try store.addToSet("user:1:transactions", "100") == false)
        #expect(try store.addToSet("user:2:transactions", "999"))
        #expect(try store.setMembers("user:1:transactions") == ["100", "200", "300"])
        #expect(try store.setMembers("user:2:transactions") == ["999"])

        #expect(try store.removeFromSet("user:1:transactions", "200"))
        #expect(try store.removeFromSet("user:1:transactions", "200") == false)
        #expect(try store.removeFromSet("user:1:transactions", "never") == false)
        #expect(try store.setMembers("user:1:transactions") == ["100", "300"])
        #expect(try store.removeFromSet("user:2:transactions", "999"))
        #expect(try store.setMembers("user:2:transactions") == [])
    }

    @Test(arguments: StoreBackend.all)
    func setMembersAreExactStrings(backend: StoreBackend) throws {
        let store = try backend.makeStore()
        let members = ["b", "B", "a b", "", "é", "a"]
        for member in members { #expect(try store.addToSet("s", member)) }
        #expect(try store.setMembers("s") == members.sorted())
    }
}
