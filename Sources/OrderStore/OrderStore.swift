// OrderStore
