import FunctionRuntime
import StorekeeperFunctions

FunctionMain.run(SiwaCallbackFunction.self)
