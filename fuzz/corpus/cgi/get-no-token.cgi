GET
/lookup
userId=u1



