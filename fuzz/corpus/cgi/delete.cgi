DELETE
/fuzz




