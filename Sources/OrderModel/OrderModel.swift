// OrderModel
