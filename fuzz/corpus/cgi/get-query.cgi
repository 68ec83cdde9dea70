GET
/lookup
userId=u1&note=hi+there

Bearer fuzz-admin-token

