package server

// TrimWords exports trimWords to the tests.
var TrimWords = trimWords
