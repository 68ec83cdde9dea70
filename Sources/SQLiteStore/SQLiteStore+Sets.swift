import StorekeeperCore

extension SQLiteStore {
    @discardableResult
    public func addToSet(_ key: String, _ member: String) throws(StoreError) -> Bool {
        try changeMember(.addMember, key, member)
    }

    @discardableResult
    public func removeFromSet(_ key: String, _ member: String) throws(StoreError) -> Bool {
        try changeMember(.removeMember, key, member)
    }

    /// Adds or removes one member; true when the set changed.
    private func changeMember(_ query: SQLiteQuery, _ key: String, _ member: String) throws(StoreError) -> Bool {
        try immediateTransaction { (_) throws(StoreError) -> Bool in
            try run(query) { (statement) throws(StoreError) -> Bool in
                try statement.bind(key, at: 1)
                try statement.bind(member, at: 2)
                try statement.step()
                return connection.changes == 1
            }
        }
    }

    public func setMembers(_ key: String) throws(StoreError) -> [String] {
        let members = try run(.members) { (statement) throws(StoreError) -> [String] in
            try statement.bind(key, at: 1)
            var members: [String] = []
            while try statement.step() { members.append(statement.text(at: 0)) }
            return members
        }
        // Sorted by Swift's String order, not SQLite's byte order, so every backend agrees.
        return members.sorted()
    }
}
