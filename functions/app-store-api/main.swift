import FunctionRuntime
import StorekeeperFunctions

FunctionMain.run(AppStoreAPIFunction.self)
