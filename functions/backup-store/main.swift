import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(BackupStoreFunction.self, adapters: Adapters.init(environment:))
