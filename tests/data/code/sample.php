<?php
// A small cart, for the Code tests.
namespace Shop;

interface Priced
{
    public function price(): int;
}

class Cart implements Priced
{
    private array $lines = [];

    /** Adds a line. */
    public function add(string $sku, int $price): void
    {
        $this->lines[] = [$sku, $price];
    }

    public function price(): int
    {
        $sum = 0;
        foreach ($this->lines as [$sku, $price]) {
            $sum += $price;
        }
        return $sum;
    }
}

function total(Cart $cart): int
{
    return $cart->price();
}
