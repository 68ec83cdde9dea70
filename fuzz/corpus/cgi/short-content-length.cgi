POST
/fuzz

application/json

5
{"name":"Ada","count":2,"tags":["a","b"],"note":"hi"}