#!/usr/bin/python3
"""Runs Debian's Electrum 4.3.4 (python3-electrum) CLI on Litecoin regtest instead of Bitcoin regtest.

Written for addrsum's real-client test (test/integration/electrum-client-ltc.test.ts): Electrum has no
Litecoin network, but its regtest class is a testnet class, and Electrum 4.3.4's
blockchain.verify_header skips the bits and proof-of-work checks on testnets while still checking the
chain of previous hashes from constants.net.GENESIS. So a class that carries Litecoin regtest's genesis
hash and address prefixes (Litecoin Core's chainparams.cpp, as in src/chain/ltc/index.ts) lets the
unmodified client follow a litecoind -regtest chain through our Electrum server. Headers are hashed
with double SHA-256 on both chains (scrypt is only Litecoin's proof of work, which is skipped).

The package's CLI script (electrum/electrum in the module directory, the same file as Debian's
/usr/bin/electrum from the `electrum` package) is run unchanged after `constants.set_regtest` is
replaced, so `--regtest` selects the class below. Arguments are Electrum's own.
"""
import os
import runpy
import sys

from electrum import constants


class LitecoinRegtest(constants.BitcoinRegtest):
    NET_NAME = "regtest"  # the data subdirectory Electrum uses under --dir
    GENESIS = "530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9"
    WIF_PREFIX = 0xEF
    ADDRTYPE_P2PKH = 111
    ADDRTYPE_P2SH = 58
    SEGWIT_HRP = "rltc"
    BOLT11_HRP = SEGWIT_HRP
    CHECKPOINTS = []  # no checkpoints: the chain is verified from genesis
    DEFAULT_SERVERS = {}  # only the server given with --server (--oneserver)


def set_litecoin_regtest():
    constants.net = LitecoinRegtest


constants.set_regtest = set_litecoin_regtest

CLI = os.path.join(os.path.dirname(constants.__file__), "electrum")
sys.argv[0] = CLI
runpy.run_path(CLI, run_name="__main__")
