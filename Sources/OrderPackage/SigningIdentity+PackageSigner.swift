import OrderSigning

extension SigningIdentity: PackageSigner {}
