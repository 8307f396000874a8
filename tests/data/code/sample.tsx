// A small component, for the Code tests.
import React from "react";

interface Props {
  items: string[];
}

export class List extends React.Component<Props> {
  render() {
    return (
      <ul>
        {this.props.items.map((item) => (
          <li key={item}>{item}</li>
        ))}
      </ul>
    );
  }
}

function Empty(): JSX.Element {
  return <p>Nothing here.</p>;
}
