POST
/fuzz
x=1
application/x-www-form-urlencoded


name=Ada&note=x%20y