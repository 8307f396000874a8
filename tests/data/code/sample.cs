// A small inventory, for the Code tests.
using System.Collections.Generic;

namespace Shop
{
    public interface IStock
    {
        int Count(string sku);
    }

    [Serializable]
    public class Inventory : IStock
    {
        private readonly Dictionary<string, int> items = new();

        public Inventory()
        {
        }

        /// <summary>Adds stock.</summary>
        public void Add(string sku, int n)
        {
            items.TryGetValue(sku, out var have);
            items[sku] = have + n;
        }

        public int Count(string sku)
        {
            return items.TryGetValue(sku, out var n) ? n : 0;
        }
    }

    public enum Unit { Piece, Box }
}
