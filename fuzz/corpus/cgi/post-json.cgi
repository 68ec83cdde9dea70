POST
/fuzz

application/json


{"name":"Ada","count":2,"tags":["a","b"],"note":"hi"}