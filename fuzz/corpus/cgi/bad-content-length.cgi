POST
/fuzz

application/json

12a
{}