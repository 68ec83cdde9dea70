import FunctionRuntime
import StorekeeperFunctions

FunctionMain.run(SiwaNativeFunction.self)
