import FunctionRuntime
import StorekeeperFunctions

FunctionMain.run(MigrateReceiptFunction.self)
