// OrderZip
