// Every file of this target sees the shared test helpers (StorekeeperTesting: MemoryStore,
// TestPKI, FunctionRunner.run(stdin:), LifecycleSimulator, ...) without importing them.
@_exported import StorekeeperTesting
