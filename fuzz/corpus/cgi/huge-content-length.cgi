POST
/fuzz

application/json

99999999999
{}