// OrderPackage
