import FunctionRuntime
import StorekeeperComposition
import StorekeeperFunctions

FunctionMain.run(MigrateReceiptFunction.self, adapters: Adapters.init(environment:))
