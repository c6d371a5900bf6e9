"""ISO 4217 currencies and their minor units: how many decimal places the smallest unit is.

Amounts are always integers in a currency's smallest unit (cents for USD, yen for JPY, fils for KWD);
``minor_units`` says how to write one as a decimal.  The table is ISO 4217's list of active codes
(funds and special codes such as XAU, XDR or XXX, which have no minor units, are left out: no table
plays for them).  Plain data, no dependency, so the engine may import it.
"""

from __future__ import annotations

# code -> minor units (ISO 4217 List One, the codes in use as of 2025: ANG gave way to XCG, ZWL to
# ZWG, SLL to SLE; withdrawn codes such as HRK and CUC are not here).
_MINOR_UNITS: dict[str, int] = {
    "AED": 2, "AFN": 2, "ALL": 2, "AMD": 2, "AOA": 2, "ARS": 2, "AUD": 2, "AWG": 2, "AZN": 2,
    "BAM": 2, "BBD": 2, "BDT": 2, "BGN": 2, "BHD": 3, "BIF": 0, "BMD": 2, "BND": 2, "BOB": 2,
    "BOV": 2, "BRL": 2, "BSD": 2, "BTN": 2, "BWP": 2, "BYN": 2, "BZD": 2,
    "CAD": 2, "CDF": 2, "CHE": 2, "CHF": 2, "CHW": 2, "CLF": 4, "CLP": 0, "CNY": 2, "COP": 2,
    "COU": 2, "CRC": 2, "CUP": 2, "CVE": 2, "CZK": 2,
    "DJF": 0, "DKK": 2, "DOP": 2, "DZD": 2,
    "EGP": 2, "ERN": 2, "ETB": 2, "EUR": 2,
    "FJD": 2, "FKP": 2,
    "GBP": 2, "GEL": 2, "GHS": 2, "GIP": 2, "GMD": 2, "GNF": 0, "GTQ": 2, "GYD": 2,
    "HKD": 2, "HNL": 2, "HTG": 2, "HUF": 2,
    "IDR": 2, "ILS": 2, "INR": 2, "IQD": 3, "IRR": 2, "ISK": 0,
    "JMD": 2, "JOD": 3, "JPY": 0,
    "KES": 2, "KGS": 2, "KHR": 2, "KMF": 0, "KPW": 2, "KRW": 0, "KWD": 3, "KYD": 2, "KZT": 2,
    "LAK": 2, "LBP": 2, "LKR": 2, "LRD": 2, "LSL": 2, "LYD": 3,
    "MAD": 2, "MDL": 2, "MGA": 2, "MKD": 2, "MMK": 2, "MNT": 2, "MOP": 2, "MRU": 2, "MUR": 2,
    "MVR": 2, "MWK": 2, "MXN": 2, "MXV": 2, "MYR": 2, "MZN": 2,
    "NAD": 2, "NGN": 2, "NIO": 2, "NOK": 2, "NPR": 2, "NZD": 2,
    "OMR": 3,
    "PAB": 2, "PEN": 2, "PGK": 2, "PHP": 2, "PKR": 2, "PLN": 2, "PYG": 0,
    "QAR": 2,
    "RON": 2, "RSD": 2, "RUB": 2, "RWF": 0,
    "SAR": 2, "SBD": 2, "SCR": 2, "SDG": 2, "SEK": 2, "SGD": 2, "SHP": 2, "SLE": 2, "SOS": 2,
    "SRD": 2, "SSP": 2, "STN": 2, "SVC": 2, "SYP": 2, "SZL": 2,
    "THB": 2, "TJS": 2, "TMT": 2, "TND": 3, "TOP": 2, "TRY": 2, "TTD": 2, "TWD": 2, "TZS": 2,
    "UAH": 2, "UGX": 0, "USD": 2, "USN": 2, "UYI": 0, "UYU": 2, "UYW": 4, "UZS": 2,
    "VED": 2, "VES": 2, "VND": 0, "VUV": 0,
    "WST": 2,
    "XAF": 0, "XCD": 2, "XCG": 2, "XOF": 0, "XPF": 0,
    "YER": 2,
    "ZAR": 2, "ZMW": 2, "ZWG": 2,
}

CURRENCIES: frozenset[str] = frozenset(_MINOR_UNITS)


def is_currency(code: object) -> bool:
    """An active ISO 4217 code, written as the standard does (three upper-case letters)."""
    return isinstance(code, str) and code in _MINOR_UNITS


def minor_units(code: str) -> int:
    """Decimal places of ``code``'s smallest unit (USD 2, JPY 0, KWD 3); KeyError for an unknown code."""
    return _MINOR_UNITS[code]


def format_amount(amount: int, code: str) -> str:
    """``amount`` smallest units as a decimal in ``code``: 1234 USD -> "12.34", 1234 JPY -> "1234"."""
    places = minor_units(code)
    if places == 0:
        return str(amount)
    sign = "-" if amount < 0 else ""
    whole, part = divmod(abs(amount), 10**places)
    return f"{sign}{whole}.{part:0{places}d}"


# The signs people write before an amount of the most common currencies; others are followed by their code.
CURRENCY_SIGNS: dict[str, str] = {"USD": "$", "EUR": "\u20ac", "GBP": "\u00a3"}


def money_text(amount: int, code: str) -> str:
    """``amount`` as a person reads it, in ``code`` ("" for play chips), grouped by thousands and without
    a fraction when it is whole: 745000 USD -> "$7,450", 7450 USD -> "$74.50", 1234 JPY -> "1,234 JPY",
    3600 play chips -> "3,600 chips"."""
    if not code:
        return f"{amount:,} chips"
    places = minor_units(code)
    sign = "-" if amount < 0 else ""
    whole, part = divmod(abs(amount), 10**places)
    number = f"{whole:,}" + (f".{part:0{places}d}" if part else "")
    prefix = CURRENCY_SIGNS.get(code)
    return f"{sign}{prefix}{number}" if prefix else f"{sign}{number} {code}"


def stakes_text(small_bet: int, big_bet: int, ante: int, bring_in: int, code: str) -> str:
    """A table's stakes as a person reads them: "$2/$4, ante $0.50, bring-in $1" (play chips: "200/400
    chips, ante 50, bring-in 100")."""
    if not code:
        return f"{small_bet:,}/{big_bet:,} chips, ante {ante:,}, bring-in {bring_in:,}"
    return (f"{money_text(small_bet, code)}/{money_text(big_bet, code)}, ante {money_text(ante, code)},"
            f" bring-in {money_text(bring_in, code)}")
