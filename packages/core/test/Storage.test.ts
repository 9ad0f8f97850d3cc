import { StorageContract } from "@tender/testing"
import { Tender } from "../src/index.js"

StorageContract.suite("memory", Tender.layerMemoryStorage)
