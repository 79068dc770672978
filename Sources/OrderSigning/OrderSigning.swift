// OrderSigning
