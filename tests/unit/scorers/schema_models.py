"""A Pydantic model for the Schema scorer's tests, importable by dotted path."""

from pydantic import BaseModel


class Item(BaseModel):
    sku: str
    quantity: int


class Order(BaseModel):
    id: int
    items: list[Item]
