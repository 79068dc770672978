print("ordertrack")
