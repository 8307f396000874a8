# A small counter, for the Code tests.
module Metrics
  class Counter
    attr_reader :count

    def initialize(name)
      @name = name
      @count = 0
    end

    # Adds one.
    def bump(by = 1)
      @count += by
      self
    end

    def self.zero(name)
      new(name)
    end
  end
end
