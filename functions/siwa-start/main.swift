import FunctionRuntime
import StorekeeperFunctions

FunctionMain.run(SiwaStartFunction.self)
